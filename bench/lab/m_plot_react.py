import numpy as np, plotly.graph_objects as go
import streamlit as st
st.title("Trivial")
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    x = np.linspace(0.01, 0.99, 99)
    fig = go.Figure()
    fig.add_scatter(x=x, y=x**(v/50), mode="lines")
    fig.update_layout(height=340, margin=dict(l=40,r=10,t=10,b=30), showlegend=False, hovermode=False)
    st.plotly_chart(fig, theme=None, config={"displayModeBar": False, "staticPlot": True}, key="fixed")
    st.write(v)
f()
