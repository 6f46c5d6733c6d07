import numpy as np, plotly.graph_objects as go
import streamlit as st
st.title("Trivial")
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    x = np.linspace(0.01, 0.99, 99)
    for j in range(2):
        fig = go.Figure()
        fig.add_scatter(x=x, y=x**(v/50+j))
        fig.update_layout(height=340, title="t")
        st.plotly_chart(fig, theme=None, key=f"p{j}")
    st.write(v)
f()
